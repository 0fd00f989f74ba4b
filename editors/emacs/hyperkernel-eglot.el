;;; hyperkernel-eglot.el --- hkls for CUDA/HIP buffers through eglot  -*- lexical-binding: t -*-
;; The Emacs recipe of docs/editors.md as a function: CUDA/HIP files in c++-mode, hkls as
;; their eglot server, and the same settings as initializationOptions and as
;; workspace configuration (eglot sends workspace/didChangeConfiguration right after
;; connecting, and hkls takes each one as the whole client settings).
;; Usage: (load "/path/to/editors/emacs/hyperkernel-eglot.el")
;;        (hyperkernel-eglot-setup '("hkls") '(:episodes (:budget 24 :minutes 20)))
(require 'eglot)

(defun hyperkernel-eglot-setup (&optional command settings)
  "Use hkls for .cu/.cuh/.hip files with eglot.
COMMAND is the server command line, a list (default (\"hkls\")). SETTINGS is a plist of
hkls settings (docs/config.md), e.g. (:target \"nvidia:sm_90\" :episodes (:budget 8)).
Sets `eglot-workspace-configuration' globally; use a .dir-locals.el to vary it."
  (let ((command (or command '("hkls"))))
    (add-to-list 'auto-mode-alist '("\\.\\(cu\\|cuh\\|hip\\)\\'" . c++-mode))
    (add-to-list 'eglot-server-programs
                 `((c++-mode c-mode) . (,@command :initializationOptions ,settings)))
    (setq-default eglot-workspace-configuration `((:hyperkernel . ,settings)))))

(provide 'hyperkernel-eglot)
;;; hyperkernel-eglot.el ends here

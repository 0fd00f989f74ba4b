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

(defun hyperkernel-trust-folder (&optional untrust)
  "Trust the workspace folder of the current hkls server (hyperkernel.trustFolder).
Until a folder is trusted hkls ignores the keys of its .hyperkernel.json that run
programs (compile.nvcc, compile.hipcc, compile.flags, engines, episodes.simulate). The
trust is stored in $XDG_CONFIG_HOME/hyperkernel/trusted.json and applies at once. With a
prefix argument UNTRUST, stop trusting the folder. Returns the server's answer."
  (interactive "P")
  (let* ((server (or (eglot-current-server) (user-error "No hkls (eglot) server here")))
         (r (jsonrpc-request server :workspace/executeCommand
                             `(:command ,(if untrust "hyperkernel.untrustFolder"
                                           "hyperkernel.trustFolder")
                               :arguments []))))
    (message "hkls: %s %s (in %s)" (if untrust "no longer trusted:" "trusted:")
             (plist-get r :folder) (plist-get r :file))
    r))

(provide 'hyperkernel-eglot)
;;; hyperkernel-eglot.el ends here

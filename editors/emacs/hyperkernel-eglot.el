;;; hyperkernel-eglot.el --- hkls for CUDA/HIP buffers through eglot  -*- lexical-binding: t -*-
;; The Emacs recipe of docs/editors.md as a function: CUDA/HIP files in c++-mode, hkls as
;; their eglot server, and the same settings as initializationOptions and as
;; workspace configuration (eglot sends workspace/didChangeConfiguration right after
;; connecting, and hkls takes each one as the whole client settings).
;; Usage: (load "/path/to/editors/emacs/hyperkernel-eglot.el")
;;        (hyperkernel-eglot-setup '("hkls") '(:episodes (:budget 24 :minutes 20)))
(require 'cl-lib)
(require 'eglot)

(defvar hyperkernel-language nil
  "Language of the glue's own messages and of hkls: \"en\", \"zh-CN\", or nil (auto).
Auto reads LC_ALL, then LC_MESSAGES, then LANG, as hkls does (docs/i18n.md): a zh locale
is zh-CN except zh_TW, zh_HK, zh_MO and zh-Hant, which are English. eglot sends no
`locale' in initialize, so a language set here also goes to hkls as its `language'
setting (unless SETTINGS name one).")

(defun hyperkernel--parse-locale (locale)
  "\"zh-CN\" or \"en\" for LOCALE, read as hkls reads one (hk_i18n_parse)."
  (let* ((case-fold-search t)
         (tags (split-string (car (split-string (or locale "") "[.@]")) "[-_]")))
    (if (and (string-equal (downcase (or (car tags) "")) "zh")
             (not (cl-some (lambda (tag) (member (downcase tag) '("hant" "tw" "hk" "mo")))
                           (cdr tags))))
        "zh-CN"
      "en")))

(defun hyperkernel--language ()
  "The language chosen: `hyperkernel-language', else the environment's locale."
  (if (member hyperkernel-language '("en" "zh-CN"))
      hyperkernel-language
    (hyperkernel--parse-locale
     (cl-some (lambda (v) (let ((x (getenv v))) (and x (not (string-empty-p x)) x)))
              '("LC_ALL" "LC_MESSAGES" "LANG")))))

(defun hyperkernel--tr (en zh)
  "EN, or ZH where the chosen language is zh-CN (the glue's own words: docs/i18n.md)."
  (if (equal (hyperkernel--language) "zh-CN") zh en))

(defun hyperkernel-eglot-setup (&optional command settings)
  "Use hkls for .cu/.cuh/.hip files with eglot.
COMMAND is the server command line, a list (default (\"hkls\")). SETTINGS is a plist of
hkls settings (docs/config.md), e.g. (:target \"nvidia:sm_90\" :episodes (:budget 8)).
Sets `eglot-workspace-configuration' globally; use a .dir-locals.el to vary it."
  (let ((command (or command '("hkls")))
        (settings (if (and (member hyperkernel-language '("en" "zh-CN"))
                           (not (plist-member settings :language)))
                      (append (list :language hyperkernel-language) settings)
                    settings)))
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
  (let* ((server (or (eglot-current-server) (user-error "%s" (hyperkernel--tr "No hkls (eglot) server here"
                                                                "此处没有 hkls（eglot）服务器"))))
         (r (jsonrpc-request server :workspace/executeCommand
                             `(:command ,(if untrust "hyperkernel.untrustFolder"
                                           "hyperkernel.trustFolder")
                               :arguments []))))
    (message (hyperkernel--tr "hkls: %s %s (in %s)" "hkls：%s %s（位于 %s）")
             (if untrust
                 (hyperkernel--tr "no longer trusted:" "已取消信任：")
               (hyperkernel--tr "trusted:" "已信任："))
             (plist-get r :folder) (plist-get r :file))
    r))

(provide 'hyperkernel-eglot)
;;; hyperkernel-eglot.el ends here

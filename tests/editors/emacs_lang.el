;;; emacs_lang.el --- the eglot glue's own words in en and zh-CN (issue 14)  -*- lexical-binding: t -*-
;; emacs --batch -q -l emacs_lang.el: hyperkernel-eglot.el's language choice read as hkls
;; reads a locale, its two messages in each language, and a chosen language passed to hkls
;; as its `language' setting (eglot sends no locale). Exit 0 all checks passed, 1 not.
(require 'cl-lib)
(require 'eglot)
(load (expand-file-name "../../editors/emacs/hyperkernel-eglot.el"
                        (file-name-directory load-file-name)) nil t)

(defvar hk-failures 0)
(defun hk-check (ok what)
  (unless ok (setq hk-failures (1+ hk-failures)))
  (princ (format "%s - %s\n" (if ok "ok  " "FAIL") what) #'external-debugging-output))

(defmacro hk-with-env (vars &rest body)
  "Run BODY with the locale variables set as VARS ((NAME . VALUE) ..., nil unsets)."
  (declare (indent 1))
  `(let ((process-environment (copy-sequence process-environment)))
     (dolist (v '("LC_ALL" "LC_MESSAGES" "LANG")) (setenv v nil))
     (dolist (kv ,vars) (setenv (car kv) (cdr kv)))
     ,@body))

;; hk_i18n_parse's reading (server/core/i18n.c)

(defun hk-no-server-message ()
  "What hyperkernel-trust-folder says in a buffer with no hkls server."
  (condition-case err
      (with-temp-buffer (hyperkernel-trust-folder) "no error")
    (user-error (error-message-string err))))
(dolist (c '(("zh_CN.UTF-8" . "zh-CN") ("zh-CN" . "zh-CN") ("zh" . "zh-CN") ("zh-Hans" . "zh-CN")
             ("zh_SG" . "zh-CN") ("ZH_cn.utf8@x" . "zh-CN") ("zh_TW.UTF-8" . "en") ("zh-Hant" . "en")
             ("zh_HK" . "en") ("zh_MO" . "en") ("C" . "en") ("en_US.UTF-8" . "en") ("" . "en")
             (nil . "en")))
  (hk-check (equal (hyperkernel--parse-locale (car c)) (cdr c))
            (format "locale %S reads as %s" (car c) (cdr c))))

(hk-with-env '(("LANG" . "C"))
  (let ((hyperkernel-language nil))
    (hk-check (equal (hyperkernel--language) "en") "LANG=C: en")
    (hk-check (equal (hyperkernel--tr "trusted:" "已信任：") "trusted:") "LANG=C: the English words")
    (let ((m (hk-no-server-message)))
      (hk-check (equal m "No hkls (eglot) server here") (format "LANG=C, no server: %S" m)))))

(hk-with-env '(("LANG" . "C") ("LC_MESSAGES" . "zh_CN.UTF-8"))
  (let ((hyperkernel-language nil))
    (hk-check (equal (hyperkernel--language) "zh-CN") "LC_MESSAGES before LANG: zh-CN")
    (let ((m (hk-no-server-message)))
      (hk-check (equal m "此处没有 hkls（eglot）服务器") (format "zh-CN, no server: %S" m)))))

(hk-with-env '(("LC_ALL" . "C") ("LANG" . "zh_CN.UTF-8"))
  (hk-check (equal (let ((hyperkernel-language nil)) (hyperkernel--language)) "en")
            "LC_ALL before LANG: en"))

;; a chosen language wins over the environment and goes to hkls as its `language' setting
(hk-with-env '(("LANG" . "C"))
  (let ((hyperkernel-language "zh-CN")
        (eglot-server-programs nil)
        (auto-mode-alist auto-mode-alist))
    (hk-check (equal (hyperkernel--tr "trusted:" "已信任：") "已信任：") "hyperkernel-language zh-CN: Chinese")
    (hyperkernel-eglot-setup '("hkls") '(:episodes (:budget 4)))
    (let ((opts (plist-get (cddr (car eglot-server-programs)) :initializationOptions)))
      (hk-check (equal (plist-get opts :language) "zh-CN")
                (format "initializationOptions carry the language: %S" opts))
      (hk-check (equal (plist-get opts :episodes) '(:budget 4)) "the other settings kept"))
    (hk-check (equal (plist-get (cdr (assq :hyperkernel (default-value 'eglot-workspace-configuration)))
                                :language)
                     "zh-CN")
              "the workspace configuration carries it too")
    (hyperkernel-eglot-setup '("hkls") '(:language "en"))
    (hk-check (equal (plist-get (plist-get (cddr (car eglot-server-programs)) :initializationOptions)
                                :language)
                     "en")
              "a language the settings name is kept")))

;; nothing chosen: the settings go to hkls as given (hkls reads the environment itself)
(let ((hyperkernel-language nil) (eglot-server-programs nil) (auto-mode-alist auto-mode-alist))
  (hyperkernel-eglot-setup '("hkls") '(:episodes (:budget 4)))
  (hk-check (not (plist-member (plist-get (cddr (car eglot-server-programs)) :initializationOptions)
                               :language))
            "auto: no language added"))

(kill-emacs (if (= hk-failures 0) 0 1))

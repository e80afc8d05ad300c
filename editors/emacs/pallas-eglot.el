;;; pallas-eglot.el --- pallas-lsp through eglot  -*- lexical-binding: t -*-
;; eglot is built into Emacs 29+; on Emacs 26-28 install it (M-x package-install RET eglot, or
;; Debian's elpa-eglot).  Load this file from your init file, or paste it there.
;; `python3' must have pallas-lsp installed (python3 -m pip install /path/to/pallas-lsp, a checkout
;; of its repository; it is not on PyPI); set
;; `pallas-lsp-command' to use a venv, e.g. '("/path/to/venv/bin/python" "-m" "pallas_lsp").
(require 'eglot)

(defvar pallas-lsp-command '("python3" "-m" "pallas_lsp")
  "Command line that starts the pallas-lsp server (stdio).")

;; eglot runs one server per buffer: this makes pallas-lsp the Python server of eglot.
(add-to-list 'eglot-server-programs
             `((python-mode python-ts-mode) . ,pallas-lsp-command))

;; Settings (the keys of the VS Code settings: select, ignore) are sent as
;; workspace/didChangeConfiguration {"pallas": {...}}; left unset, [tool.pallas-lsp] in
;; pyproject.toml applies.  For example, globally or per project in .dir-locals.el:
;;   (setq-default eglot-workspace-configuration '((:pallas . (:ignore ["PAL003"]))))
;; After changing it in a running session: M-x eglot-signal-didChangeConfiguration.

;; Start eglot in every Python buffer (or run M-x eglot by hand).
(add-hook 'python-mode-hook #'eglot-ensure)

(provide 'pallas-eglot)
;;; pallas-eglot.el ends here

;;; test.el --- headless Emacs 28 + eglot 1.9 end-to-end test of pallas-lsp -*- lexical-binding: t -*-
;; Usage:
;;   SERVER_CMD="python -m pallas_lsp" PALLAS_EMACS_CONFIG=editors/emacs/pallas-eglot.el \
;;     WORKSPACE=<copy of fixtures/workspace> RESULT=out.txt LOGDIR=dir \
;;     emacs --batch --no-init-file -l test.el
;; Scenario: kernel_index.py shows PAL001 on `sems'; the index quick fix gives `sems.at[slot]' and
;; the diagnostic clears; kernel_guard.py shows PAL002 on `flags', which ignore = ["PAL002"] in
;; `eglot-workspace-configuration' hides and unsetting brings back; the assertion-guard fix puts
;; `assert flags.shape == ...' on its own line above the call.  Exit status 0 = pass.
(require 'package)
(package-initialize)            ; Debian's elpa-eglot lives in /usr/share/emacs/site-lisp/elpa
(require 'eglot)
(require 'flymake)
(require 'python)
(require 'seq)

(defvar pallas-lsp-command)
(defvar pallas-test-log nil)
(defvar pallas-test-t0 (float-time))
(defun pallas-test-log (fmt &rest args)
  (let ((s (format "[%5.1fs] %s" (- (float-time) pallas-test-t0) (apply #'format fmt args))))
    (push s pallas-test-log)
    (message "%s" s)))

(defun pallas-test-save-logs ()
  "Write eglot's events buffer and the server's stderr buffer into LOGDIR."
  (let ((dir (or (getenv "LOGDIR") default-directory)))
    (dolist (b (buffer-list))
      (when (string-match-p "EGLOT" (buffer-name b))
        (with-current-buffer b
          (write-region (point-min) (point-max)
                        (expand-file-name
                         (concat "eglot-" (replace-regexp-in-string "[^A-Za-z0-9]+" "-" (buffer-name b)) ".log")
                         dir)
                        nil 'silent))))))

(defun pallas-test-finish (ok)
  (pallas-test-log (if ok "RESULT: PASS" "RESULT: FAIL"))
  (with-temp-file (or (getenv "RESULT") "emacs-result.txt")
    (insert (mapconcat #'identity (reverse pallas-test-log) "\n") "\n"))
  (pallas-test-save-logs)
  (ignore-errors (let ((s (eglot-current-server))) (when s (eglot-shutdown s))))
  (kill-emacs (if ok 0 1)))

(defun pallas-test-wait (pred timeout)
  "Pump process output and timers until PRED is non-nil or TIMEOUT seconds pass."
  (let ((deadline (+ (float-time) timeout)) v)
    (while (and (not (setq v (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    v))

(defun pallas-test-check (cond fmt &rest args)
  (unless cond (error "%s" (apply #'format fmt args))))

;; the documented configuration (editors/emacs/pallas-eglot.el), with the server command under test
(setq pallas-lsp-command (split-string-and-unquote (or (getenv "SERVER_CMD") "python3 -m pallas_lsp")))
(load (or (getenv "PALLAS_EMACS_CONFIG") (error "PALLAS_EMACS_CONFIG not set")) nil t)
(setq eglot-sync-connect 20          ; block in (eglot ...) until initialize returns
      eglot-autoshutdown t
      eglot-confirm-server-initiated-edits nil
      eglot-events-buffer-size 200000)

(defun pallas-test-open (file code)
  "Visit FILE with eglot managing it; return its diagnostic with CODE."
  (find-file (expand-file-name file (getenv "WORKSPACE")))
  (pallas-test-check (derived-mode-p 'python-mode) "%s did not open in python-mode" file)
  ;; `eglot-ensure' (python-mode-hook) connects from post-command-hook, which never runs in batch
  ;; mode: connect the way `M-x eglot' would, with the contact from `eglot-server-programs'
  (unless (eglot-current-server)
    (apply #'eglot (eglot--guess-contact)))
  (pallas-test-check (pallas-test-wait #'eglot-managed-p 20) "eglot does not manage %s after 20s" file)
  ;; flymake's deferred start never fires in batch mode: kick it while waiting
  (let* ((diags (pallas-test-wait (lambda () (flymake-start) (flymake-diagnostics)) 20))
         (found (seq-find (lambda (d) (string-match-p (regexp-quote (format "[%s]" code))
                                                      (flymake-diagnostic-text d)))
                          diags)))
    (pallas-test-log "%s: %d diagnostic(s)" file (length diags))
    (dolist (d diags)
      (pallas-test-log "  %d:%d %s %s" (line-number-at-pos (flymake-diagnostic-beg d))
                       (save-excursion (goto-char (flymake-diagnostic-beg d)) (current-column))
                       (flymake-diagnostic-type d) (flymake-diagnostic-text d)))
    (pallas-test-check found "no %s diagnostic in %s within 20s" code file)
    (pallas-test-check (= (length diags) 1) "expected exactly one diagnostic in %s, got %d" file (length diags))
    found))

(defun pallas-test-find (context needle)
  "Position of NEEDLE in the first line containing CONTEXT."
  (save-excursion
    (goto-char (point-min))
    (pallas-test-check (search-forward context nil t) "fixture line not found: %s" context)
    (beginning-of-line)
    (search-forward context)
    (goto-char (match-beginning 0))
    (search-forward needle)
    (match-beginning 0)))

(defun pallas-test-edit-text (action)
  "The new text of every edit in ACTION's workspace edit, joined."
  (let ((edit (plist-get action :edit)) parts)
    (when edit
      (let ((changes (plist-get edit :changes)))
        (cl-loop for (_uri edits) on changes by #'cddr
                 do (seq-doseq (e edits) (push (plist-get e :newText) parts))))
      (seq-doseq (dc (plist-get edit :documentChanges))
        (seq-doseq (e (plist-get dc :edits)) (push (plist-get e :newText) parts))))
    (mapconcat #'identity parts "\n")))

(defun pallas-test-quick-fix (diag want)
  "Apply the code action for DIAG whose edit contains WANT."
  (let* ((beg (flymake-diagnostic-beg diag)) (end (flymake-diagnostic-end diag))
         (actions (eglot-code-actions beg end))     ; non-interactive: returns the actions
         (chosen (seq-find (lambda (a) (string-match-p (regexp-quote want) (pallas-test-edit-text a)))
                           actions)))
    (dolist (a actions)
      (pallas-test-log "  action: %S kind=%s" (plist-get a :title) (plist-get a :kind)))
    (pallas-test-check chosen "no code action whose edit contains %S" want)
    (pallas-test-log "applying %S" (plist-get chosen :title))
    (eglot--apply-workspace-edit (plist-get chosen :edit))
    ;; eglot sends didChange from an idle timer, which never runs in batch mode: send it now
    (eglot--signal-textDocument/didChange)))

(defun pallas-test-line (pos)
  (save-excursion (goto-char pos) (buffer-substring-no-properties (line-beginning-position) (line-end-position))))

(condition-case err
    (progn
      (pallas-test-log "emacs %s, eglot %s, server: %s" emacs-version
                       (let ((d (cadr (assq 'eglot package-alist)))) (if d (package-version-join (package-desc-version d)) "?"))
                       (getenv "SERVER_CMD"))
      ;; 1. index fix
      (let* ((d (pallas-test-open "kernel_index.py" "PAL001"))
             (want (pallas-test-find "buf.at[slot], sems)" "sems")))
        (pallas-test-check (and (= (flymake-diagnostic-beg d) want) (= (flymake-diagnostic-end d) (+ want 4)))
                           "PAL001 is not on `sems' (at %d-%d, expected %d)"
                           (flymake-diagnostic-beg d) (flymake-diagnostic-end d) want)
        (pallas-test-check (eq (flymake-diagnostic-type d) 'eglot-error) "PAL001 is not an error: %s"
                           (flymake-diagnostic-type d))
        (pallas-test-check (string-match-p "non-()-shaped semaphore" (flymake-diagnostic-text d))
                           "unexpected message: %s" (flymake-diagnostic-text d))
        (pallas-test-quick-fix d ".at[")
        (let ((line (pallas-test-line want)))
          (pallas-test-log "line %d after the fix: %s" (line-number-at-pos want) line)
          (pallas-test-check (string-match-p (regexp-quote "buf.at[slot], sems.at[slot]).start()") line)
                             "index fix did not give sems.at[slot]"))
        (let ((cleared (pallas-test-wait (lambda () (flymake-start) (null (flymake-diagnostics))) 20)))
          (pallas-test-log "diagnostics after the fix: %d" (length (flymake-diagnostics)))
          (pallas-test-check cleared "diagnostic not cleared after the index fix")))
      ;; 2. settings reach the server: ignoring PAL002 clears the diagnostic, unsetting brings it back
      (pallas-test-open "kernel_guard.py" "PAL002")
      (setq-default eglot-workspace-configuration '((:pallas . (:ignore ["PAL002"]))))
      (eglot-signal-didChangeConfiguration (eglot-current-server))
      (pallas-test-check (pallas-test-wait (lambda () (flymake-start) (null (flymake-diagnostics))) 20)
                         "ignore = [PAL002] (eglot-workspace-configuration) did not clear the diagnostic")
      (pallas-test-log "settings: ignore = [PAL002] cleared the diagnostic")
      (setq-default eglot-workspace-configuration '((:pallas . (:logLevel "info"))))
      (eglot-signal-didChangeConfiguration (eglot-current-server))
      (pallas-test-check (pallas-test-wait (lambda () (flymake-start) (flymake-diagnostics)) 20)
                         "the diagnostic did not come back after ignore was unset")
      (pallas-test-log "settings: ignore unset, the diagnostic is back")
      ;; 3. assertion-guard fix
      (let* ((d (pallas-test-open "kernel_guard.py" "PAL002"))
             (want (pallas-test-find "semaphore_signal(flags" "flags"))
             (call (pallas-test-line want))
             (call-line (line-number-at-pos want)))
        (pallas-test-check (= (flymake-diagnostic-beg d) want) "PAL002 is not on `flags'")
        (pallas-test-quick-fix d "assert ")
        (let* ((guard (save-excursion (goto-char (point-min)) (forward-line (1- call-line))
                                      (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
               (next (save-excursion (goto-char (point-min)) (forward-line call-line)
                                     (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
               (indent (progn (string-match "^ *" call) (match-string 0 call))))
          (pallas-test-log "after the fix:\n    %s\n    %s" guard next)
          (pallas-test-check (string-prefix-p (concat indent "assert flags.shape == ()") guard)
                             "no `assert flags.shape == ()' guard, indented like the call, above it")
          (pallas-test-check (string= next call) "the call line changed: %S" next)))
      (pallas-test-finish t))
  (error (pallas-test-log "FAIL: %s" (error-message-string err)) (pallas-test-finish nil)))

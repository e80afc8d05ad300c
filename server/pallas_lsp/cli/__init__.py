"""The command line's face: `pallas-lsp check` (`run.py`) over files and folders
(`discover.py`, notebooks in `notebook_source.py`), one file at a time (`checker.py`),
its options (`args.py`) and its output formats (`formats.py`)."""

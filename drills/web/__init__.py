"""The browser app behind `python practice/judge.py serve`: a local server (server.py) that shows the
chapter with its interactive figures, an editor on the learner's own file, and the judge's result."""

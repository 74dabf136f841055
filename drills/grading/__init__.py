"""`judge.py grade`: batch judging of a class's submissions (see drills/grading/command.py for the command).

hidden      the instructor's HIDDEN.toml: extra shapes and a seed per problem, validated
submissions which folders and files are submissions, and which .cu in a folder is judged
template   the part of a build that does not depend on the submission, built once and cached
sandbox    limits, bubblewrap, the child process tree and how to kill it
child      `python -m drills.grading.child SPEC`: one submission, inside the sandbox
capped     the wrapper that stops a test program that prints without end
scoring    points from the manifest's [problem.scoring] table
batch      one run: the reference, then every submission in its sandbox, scored and written
feedback   what a student may see (hidden cases as counts only)
gradebook  grades.csv, and --merge
"""


class GradeError(Exception):
    """Bad input to the grader (missing folder, bad hidden file, ...): one line, exit 2."""

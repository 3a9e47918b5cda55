"""MathNet: equivalent-problem retrieval (MathNet-Retrieve, Recall@1/5/10) and olympiad problem solving with
retrieval-augmented solving (MathNet-Solve, MathRAG), from releases pinned on the Hub."""

from lemmata.core.family import Family, JudgedColumns

FAMILY = Family(
    package=__name__, releases="releases:RELEASES",
    builders=("builder:MathNetRetrieveBuilder", "solve_builder:MathNetSolveBuilder"),
    handlers={"mathnet-retrieve": "track:MathNetHandler", "mathnet-solve": "solve_track:MathNetSolveHandler"},
    reported="reported:import_reported", evaluation={"mathnet-retrieve": "evaluation_tasks:tasks"},
    runs={"mathnet": "runs:PROTOCOL"}, commands=("commands:register",), panels=("panel:PANEL",), briefs="briefs.toml",
    paper_tables="paper_tables.toml",
    judged=(":SOLVE_GRADES",),
)

#: ProofGrade is the share of solutions the grader gives full marks (``solve_track``; provenance ``grader``); the
#: AnswerCheck column is math-verify's, not the grader's
SOLVE_GRADES = JudgedColumns(benchmark="mathnet-solve", columns=("proof_grade",), judge="provenance.grader.id",
                             decides="the grade of each solution (IMO-Bench grading)",
                             rubrics=("mathnet_grade.v2",))  # solve_scoring.RUBRIC (a test pins it)

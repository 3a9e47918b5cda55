"""What every version of the offline scholarly artifact shares: its name stem and the files its folder holds."""

ARTIFACT_NAME = "re2math-scholar-offline"
#: the artifact's own description (what it was built from, how it ranks), verified with MANIFEST.json on open
INFO_FILE = "ARTIFACT.json"
#: the bm25s index folder (:func:`lemmata.retrievers.bm25.postings.write_index`)
INDEX_DIR = "index"

"""File formats: the submission envelope, BEIR collections and runs, results, and JSON-Schema export."""

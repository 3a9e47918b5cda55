"""The metric's page: a Gradio app over this folder's ``evaluate`` module (run: ``python app.py``)."""

from pathlib import Path

import evaluate

from lemmata.metrics.widget import metric_app

module = evaluate.load(str(Path(__file__).resolve().parent))
demo = metric_app(module)

if __name__ == "__main__":
    demo.launch()

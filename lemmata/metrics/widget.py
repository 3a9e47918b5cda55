"""A Gradio 6 page for an ``evaluate`` metric module (the ``app.py`` of each ``metrics/<name>`` folder).

``evaluate``'s own ``launch_gradio_widget`` targets Gradio 3 (``gr.inputs``),
which this project's Gradio no longer has; this page does the same job — type
inputs as JSON, press Compute, read the output — on the installed Gradio.
"""

from __future__ import annotations

import json
from typing import Any

#: a worked example per metric module (the same one its metric card shows)
EXAMPLES: dict[str, dict[str, Any]] = {
    "tool_acc": {
        "predictions": [
            {"instance_id": "g1", "ground": "yes", "suff": "yes", "anchor_match": "yes", "cite_rank": "2",
             "selected_source": "cited", "oracle_ground": "", "oracle_suff": ""},
            {"instance_id": "g2", "ground": "yes", "suff": "no", "anchor_match": "no", "cite_rank": "",
             "selected_source": "alternative", "oracle_ground": "", "oracle_suff": ""},
        ],
        "references": [
            {"instance_id": "g1", "paper_key": "2101.00001", "domain": "analysis_pde", "oracle_evaluable": False},
            {"instance_id": "g2", "paper_key": "2101.00002", "domain": "geometry_topology",
             "oracle_evaluable": False},
        ],
        "kwargs": {"n_resamples": 200},
    },
    "recall_at_k": {
        "predictions": [["d3", "d1", "d7"], ["d2", "d9"]],
        "references": [["d1", "d4"], ["d2"]],
        "kwargs": {"k": [1, 2], "n_resamples": 0},
    },
    "correctness": {
        "predictions": [{"item_id": "a", "compiles": "yes", "faithful": "yes"},
                        {"item_id": "b", "compiles": "yes", "faithful": "no"}],
        "references": [{"item_id": "a", "group": ""}, {"item_id": "b", "group": ""}],
        "kwargs": {},
    },
}


def compute_from_json(module, text: str) -> dict[str, Any]:
    """Run ``module.compute`` on a JSON object ``{"predictions", "references", "kwargs"}``.

    Errors come back as ``{"error": ...}`` so the page shows them instead of failing.
    """
    try:
        payload = json.loads(text)
        if not isinstance(payload, dict) or not {"predictions", "references"} <= set(payload):
            raise ValueError('expected a JSON object with "predictions", "references" and optional "kwargs"')
        kwargs = payload.get("kwargs") or {}
        if not isinstance(kwargs, dict):
            raise ValueError('"kwargs" must be a JSON object')
        out = module.compute(predictions=payload["predictions"], references=payload["references"], **kwargs)
    except Exception as exc:  # noqa: BLE001 - a widget shows any failure as text
        return {"error": f"{type(exc).__name__}: {exc}"}
    return json.loads(json.dumps(out, default=lambda o: getattr(o, "tolist", lambda: str(o))()))


def metric_app(module, name: str | None = None):
    """Blocks with the module's description, an input editor prefilled with its example, and the output."""
    import gradio as gr

    key = name or module.name
    example = EXAMPLES.get(key, {"predictions": [], "references": [], "kwargs": {}})
    with gr.Blocks(title=f"{key} · Lemmata metric") as demo:
        gr.Markdown(f"# {key}\n\n{module.description}")
        with gr.Row():
            source = gr.Code(value=json.dumps(example, indent=2), language="json", label="Input (JSON)", lines=18)
            output = gr.JSON(label="Output")
        gr.Button("Compute", variant="primary").click(lambda text: compute_from_json(module, text), source, output)
        gr.Markdown(f"```\n{module.inputs_description}\n```")
    return demo

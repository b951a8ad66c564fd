"""What every benchmark shares: the Evaluator base class, item and result types, the registry,
statistics and the runner that scores a predictions file."""
from __future__ import annotations

from evaluators.core.types import (
    DatasetError,
    InfrastructureError,
    Item,
    ItemScore,
    MetricColumn,
    MethodNote,
    ProtocolRow,
    MetricValue,
    ModelRequest,
    Prediction,
    PredictionsError,
    SliceDimension,
)
from evaluators.core.evaluator import (Conversation, Evaluator, Generation, Heatmap, JudgeUse, LineChart, Presentation, ScoredByJudge,
                                       SettingsRefused)
from evaluators.core.registry import (BENCHMARKS, BenchmarkRow, evaluator_class, evaluator_for, evaluator_version, judge_role,
                                      register, registered_keys)

__all__ = [
    "BENCHMARKS",
    "BenchmarkRow",
    "Conversation",
    "DatasetError",
    "Evaluator",
    "Generation",
    "Heatmap",
    "InfrastructureError",
    "Item",
    "ItemScore",
    "JudgeUse",
    "LineChart",
    "MethodNote",
    "ProtocolRow",
    "MetricColumn",
    "MetricValue",
    "ModelRequest",
    "Prediction",
    "PredictionsError",
    "Presentation",
    "ScoredByJudge",
    "SettingsRefused",
    "SliceDimension",
    "evaluator_class",
    "evaluator_for",
    "evaluator_version",
    "judge_role",
    "register",
    "registered_keys",
]

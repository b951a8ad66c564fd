"""The evaluator protocol shared by every benchmark: item and result types, the registry, statistics
and the runner that scores a predictions file."""
from __future__ import annotations

from evaluators.core.types import (
    DatasetError,
    InfrastructureError,
    Item,
    ItemScore,
    MetricColumn,
    MethodNote,
    MetricValue,
    ModelRequest,
    Prediction,
    PredictionsError,
    SliceDimension,
)
from evaluators.core.protocol import Evaluator
from evaluators.core.registry import evaluator_version, get_evaluator, register, registered_keys

__all__ = [
    "DatasetError",
    "Evaluator",
    "InfrastructureError",
    "Item",
    "ItemScore",
    "MethodNote",
    "MetricColumn",
    "MetricValue",
    "ModelRequest",
    "Prediction",
    "PredictionsError",
    "SliceDimension",
    "evaluator_version",
    "get_evaluator",
    "register",
    "registered_keys",
]

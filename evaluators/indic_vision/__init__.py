"""IndicVisionBench: OCR, caption translation and visual question answering in English and ten Indian
languages, as three leaderboards (see ``evaluator``)."""

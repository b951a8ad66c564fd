"""The Search Arena's numbers, Django-free: Bradley-Terry ratings with intervals and style control
(ratings, style), pair sampling with propensities (sampling), vote integrity statistics (integrity)
and the released dataset's schema (dataset)."""

"""The Search Arena: anonymous battles between search-augmented models, votes with integrity checks,
Bradley-Terry ratings with intervals and style control, and import/export of the released dataset."""

"""Plausible wrong answers to each chapter's exercises (chNN.py: WRONG = {exercise_id: [functions]})."""

"""Constraint tasks (CRAB-Bench style): problems from each domain's constraint model, solved with a real
constraint solver, with every valid solution and the distractors that break exactly one rule."""

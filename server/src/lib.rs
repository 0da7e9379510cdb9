//! cohort-server: the sans-IO lockstep core.

-- Filled by the change-counter work (#21).
SELECT 1;

-- Filled by the server-instances work (#21).
SELECT 1;

\timing on
SELECT 'before' AS b;
SELECT
    1 AS u
UNION ALL
SELECT
    2;
SELECT 'after' AS a;

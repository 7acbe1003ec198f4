SELECT 'before' AS b;
COPY (SELECT NULL::int, 1) TO STDOUT;
SELECT 'after' AS a;

SELECT 'before' AS b;
VACUUM pgbench_branches;
Select aid
  From pgbench_accounts
 Where aid = 1;
SELECT 'after' AS a;

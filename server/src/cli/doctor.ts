/** `npm run doctor`: checks this deployment's configuration, database, SDK and AWS stages. */
import { exportAwsVariables, readEnv } from '../env';
import { formatCheck, runDoctor, summary } from '../doctor/doctor';
import { findRepoRoot } from '../paths';

const repoRoot = findRepoRoot();
const env = readEnv(repoRoot);
exportAwsVariables(env);
try {
  const results = await runDoctor({ env, repoRoot });
  for (const result of results) process.stdout.write(`${formatCheck(result)}\n`);
  process.stdout.write(`${summary(results)}\n`);
  process.exitCode = results.some((result) => result.status === 'FAIL') ? 1 : 0;
} catch (error) {
  process.stderr.write(`doctor: could not finish: ${(error as Error).message}\n`);
  process.exitCode = 1;
}

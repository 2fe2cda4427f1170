/** `npm run publish-token -- STREAM_ID [--minutes N] [--user-id ID]` (see publish-token-command.ts). */
import { exportAwsVariables, readEnv } from '../env';
import { findRepoRoot } from '../paths';
import { runPublishTokenCommand } from './publish-token-command';

const repoRoot = findRepoRoot();
const env = readEnv(repoRoot);
exportAwsVariables(env);
process.exitCode = await runPublishTokenCommand(process.argv.slice(2), {
  env,
  repoRoot,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});

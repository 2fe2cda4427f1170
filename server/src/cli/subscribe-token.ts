/** `npm run subscribe-token -- STREAM_ID [--minutes N] [--user-id ID]` (see publish-token-command.ts). */
import { readEnv } from '../env';
import { findRepoRoot } from '../paths';
import { runSubscribeTokenCommand } from './publish-token-command';

const repoRoot = findRepoRoot();
process.exitCode = await runSubscribeTokenCommand(process.argv.slice(2), {
  env: readEnv(repoRoot),
  repoRoot,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});

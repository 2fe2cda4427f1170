/** `npm run ivs -- provision | publish-token STREAM_ID` (see ivs/ivs-cli.ts). */
import { exportAwsVariables, readEnv } from '../env';
import { runIvsCli } from '../ivs/ivs-cli';
import { findRepoRoot } from '../paths';

const env = readEnv(findRepoRoot());
exportAwsVariables(env);
process.exitCode = await runIvsCli(process.argv.slice(2), {
  env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});

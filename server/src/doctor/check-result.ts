/** What each of `npm run doctor`'s checks answers, whichever module makes it. */

/** WARN: works, but not as an operator would want (the exit code stays 0). */
export type CheckStatus = 'PASS' | 'FAIL' | 'SKIP' | 'WARN';

export interface CheckResult {
  status: CheckStatus;
  name: string;
  detail: string;
}

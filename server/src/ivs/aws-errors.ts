/**
 * What an operator reads when an AWS call from the command line fails: one sentence naming the
 * cause and what to do, never a stack trace. (The API's viewer-facing wording is in
 * providers/ivs-provider.ts; this one may say more, since only the operator sees it.)
 */

/** The AWS SDK's error name, or '' when the value is not an Error. */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : '';
}

export function describeAwsError(error: unknown, action: string): string {
  const name = errorName(error);
  const message = error instanceof Error ? error.message : String(error);
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  switch (name) {
    case 'CredentialsProviderError':
      return (
        'No AWS credentials found. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or ' +
        'AWS_PROFILE), or run where an IAM role provides them.'
      );
    case 'UnrecognizedClientException':
    case 'InvalidSignatureException':
    case 'InvalidClientTokenId':
    case 'SignatureDoesNotMatch':
      return `AWS did not accept the credentials (${name}): check the access key and secret.`;
    case 'ExpiredTokenException':
    case 'ExpiredToken':
      return 'The AWS session credentials have expired: renew them (e.g. aws sso login).';
    case 'AccessDeniedException':
      return `AWS refused ${action}: the credentials lack that permission (see the IAM policies in docs/deployment.md).`;
    case 'ResourceNotFoundException':
      return `${action}: no such resource in this account and region (${message}).`;
    case 'ThrottlingException':
    case 'TooManyRequestsException':
      return `${action} was throttled by AWS; try again in a moment.`;
    case 'ServiceQuotaExceededException':
      return `${action}: an IVS quota is reached (${message}).`;
    case 'TimeoutError':
    case 'AbortError':
      return `${action}: AWS did not answer in time (network or region?).`;
  }
  if (/^(ECONN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH)/.test(code)) {
    return `${action}: cannot reach AWS (${code}); check the network and AWS_REGION.`;
  }
  return `${action} failed: ${name === '' || name === 'Error' ? '' : `${name}: `}${message}`;
}

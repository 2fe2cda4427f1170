import { getAuthToken } from '@/lib/auth-token';
import { apiUrl } from '@/lib/api-url';
import { stringField } from '@/lib/parse-json';

export const NO_AUTH_TOKEN_MESSAGE = 'Authentication token not found. Please log in again.';
export const TOKEN_FETCH_FAILED_MESSAGE = 'Failed to fetch participant token';

/**
 * Asks the API for a participant token for a stage. Throws an Error whose message is the one
 * SPEC.md §8 gives for each situation. A 401 is reported like any other refusal: no logout.
 */
export async function getParticipantToken(
  request: { stageId: string; clientId: string },
  signal?: AbortSignal,
): Promise<string> {
  const authToken = getAuthToken();
  if (!authToken) throw new Error(NO_AUTH_TOKEN_MESSAGE);

  let response: Response;
  try {
    response = await fetch(apiUrl('/api/token'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${authToken}` },
      body: JSON.stringify({ stageId: request.stageId, clientId: request.clientId }),
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new Error(TOKEN_FETCH_FAILED_MESSAGE, { cause: error });
  }

  const body = await readJson(response);
  if (!response.ok) {
    throw new Error(stringField(body, 'error') ?? TOKEN_FETCH_FAILED_MESSAGE);
  }
  const participantToken = stringField(body, 'token');
  if (!participantToken) throw new Error(TOKEN_FETCH_FAILED_MESSAGE);
  return participantToken;
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

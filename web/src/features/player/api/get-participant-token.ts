import { uiText } from '@/config/ui-text';
import { ApiError, postJson, textField } from '@/lib/api-client';
import { getAuthToken } from '@/lib/auth-token';

/**
 * Asks the API for a participant token for a stage. Throws an Error whose message is the one
 * docs/product.md#error-catalogue gives for each situation. A 401 is reported like any other
 * refusal: no logout.
 */
export async function getParticipantToken(
  request: { stageId: string; clientId: string },
  signal?: AbortSignal,
): Promise<string> {
  const authToken = getAuthToken();
  if (!authToken) throw new Error(uiText.errors.noAuthToken);

  try {
    return await postJson(
      '/api/token',
      { stageId: request.stageId, clientId: request.clientId },
      (answer) => textField(answer, 'token'),
      { headers: { Authorization: `Bearer ${authToken}` }, signal },
    );
  } catch (error) {
    if (!(error instanceof ApiError)) throw error; // cancelled: nothing to show
    throw new Error(error.serverMessage ?? uiText.errors.tokenFetchFailed, { cause: error });
  }
}

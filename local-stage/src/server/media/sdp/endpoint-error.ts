/** A WHIP or WHEP request refused: the HTTP status and the error the publisher or player reads. */
export class EndpointError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'EndpointError';
  }
}

/** pino-pretty's options for every Tailcam process's lines. */
export function prettyLogOptions(options: { colorize: boolean }): {
  colorize: boolean;
  singleLine: boolean;
  translateTime: string;
  ignore: string;
  messageFormat: (record: Record<string, unknown>, messageKey: string) => string;
};

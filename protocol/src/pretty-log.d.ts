/** pino-pretty's options for every Tailcam process's lines. */
export function prettyLogOptions(options: { colorize: boolean }): {
  colorize: boolean;
  singleLine: boolean;
  translateTime: string;
  ignore: string;
  messageFormat: (record: Record<string, unknown>, messageKey: string) => string;
};

/** Where JSON log lines are written to reach `out` through pino-pretty with those options. */
export function prettyDestination(
  out: { write(text: string): unknown },
  options: { colorize: boolean },
): { write(line: string): void };

/** The logger the setup routes need (pino satisfies it). Objects first, message second. */
type LogFn = (obj: Record<string, unknown>, msg: string) => void;

export interface SetupLog {
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

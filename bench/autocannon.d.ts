// The part of autocannon's programmatic API the gateway bench uses (the package ships no types).
declare module 'autocannon' {
  export interface Percentiles {
    average: number;
    mean: number;
    max: number;
    min: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }
  export interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    /** Replace `[<id>]` in the body with a random id, per request. */
    idReplacement?: boolean;
    requests?: Array<{ onResponse?: (status: number, body: string) => void }>;
  }
  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    latency: Percentiles;
    requests: Percentiles & { sent: number };
    statusCodeStats: Record<string, { count: number }>;
  }
  /** The running load: a promise of its result that also tells of each answer as it comes. */
  export interface Instance extends Promise<Result> {
    /** `client` is the connection (the same object for each of its answers); `ms` the answer's latency. */
    on(
      event: 'response',
      listener: (client: object, status: number, bytes: number, ms: number) => void,
    ): this;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}

// What the testkit's global setup hands to every test file through vitest's provide/inject.
declare module 'vitest' {
  export interface ProvidedContext {
    elasticsearchUrl: string;
    redisUrl: string;
  }
}

export {};

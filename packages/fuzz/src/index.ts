export { fuzzCase, tamperedCursors, type Expectation, type FuzzCase, type FuzzContext } from './cases.ts';
export { judge, type Answer, type Failure, type Verdict } from './judge.ts';
export { loadApiModel, type ApiModel, type Operation, type Parameter } from './model.ts';
export { createFuzzer, fuzzRun, type Fuzzer, type Tally } from './run.ts';
export { startFuzzStack, type FuzzStackOptions, type FuzzTarget } from './stack.ts';

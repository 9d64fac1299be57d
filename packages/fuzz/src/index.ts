export { startFuzzStack, type FuzzTarget } from './stack.ts';

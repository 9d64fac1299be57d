export { InvalidParam, Problem, PROBLEM_CONTENT_TYPE } from './problem.ts';

// The reassignment service moved to src/services/reassignments (issue 31). The reconciler still
// imports keptThrottles from here until its split (src/reconcile/reconciler.ts) imports it from
// ./kept-throttles.js; then this file goes.
export { keptThrottles } from './kept-throttles.js';

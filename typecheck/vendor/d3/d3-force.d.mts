// vendor/d3/d3-force.mjs is node_modules/d3-force/dist/d3-force.mjs (its imports made relative), which ships
// no declarations: the functions graph-layout.js calls, loosely typed (a force is configured by chained
// calls whose every setter returns the force).
type Force = any;
export function forceSimulation(nodes?: object[]): any;
export function forceLink(links?: object[]): Force;
export function forceManyBody(): Force;
export function forceCollide(radius?: number | ((node: any) => number)): Force;
export function forceX(x?: number | ((node: any) => number)): Force;
export function forceY(y?: number | ((node: any) => number)): Force;

// The Mémoire graph's force layout (d3-force), apart from any drawing so bench/graph.py times exactly
// this: one anchor per category on a ring pulls its cards together, mention links (and the clusters
// they form, computed by py/openmasq/memory/cluster.py) pull linked cards close, a short-range charge
// keeps cards apart. Node objects get x, y (and vx, vy) as d3 moves them.
import {
  forceCollide, forceLink, forceManyBody, forceSimulation, forceX, forceY,
} from "../../vendor/d3/d3-force.mjs";

export const CATEGORY_ORDER = ["personne", "organisation", "projet", "autre"];
export const NODE_RADIUS = 6;
const ALPHA_MIN = 0.001; // d3's default: the layout counts as settled below it
// Measured with bench/graph.py on 1,000 cards (2-core machine, Chromium): d3's defaults took 300
// ticks of about 5 ms, and its timer runs one tick per frame (5 s to settle). A charge limited to
// 160 px, a Barnes-Hut theta of 0.9, 150 ticks (alpha decay 0.045) and as many ticks per frame as
// fit in 12 ms bring it inside the 2-second target, the categories still visibly apart.
const TICKS = 150;
const FRAME_BUDGET_MS = 12;
const CHARGE = -26;
const CHARGE_RANGE = 160;
const THETA = 0.9;
const LINK_DISTANCE = 34;
const ANCHOR_PULL = 0.07;

/** Where each category's cards gather: evenly on a ring whose radius grows with the card count. */
export function anchors(count) {
  const radius = Math.max(90, Math.sqrt(Math.max(count, 1)) * 14);
  const out = {};
  CATEGORY_ORDER.forEach((category, i) => {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / CATEGORY_ORDER.length;
    out[category] = { x: radius * Math.cos(angle), y: radius * Math.sin(angle) };
  });
  return out;
}

/** A d3 simulation over `graph` ({nodes, links} from the worker's memoryGraph, copied), run to rest
 *  frame by frame unless `running` is false; onTick is called once per drawn frame. */
/** @param {{nodes: object[], links: object[]}} graph
 * @param {{onTick?: () => void, onEnd?: () => void, running?: boolean}} [options] */
export function layout(graph, { onTick, onEnd, running = true } = {}) {
  const nodes = graph.nodes.map((n) => ({ ...n }));
  const ids = new Set(nodes.map((n) => n.id));
  const links = graph.links.filter((l) => ids.has(l.source) && ids.has(l.target)).map((l) => ({ ...l }));
  const spots = anchors(nodes.length);
  const simulation = forceSimulation(nodes)
    .force("charge", forceManyBody().strength(CHARGE).distanceMax(CHARGE_RANGE).theta(THETA))
    .force("link", forceLink(links).id((d) => d.id).distance(LINK_DISTANCE).strength(0.4))
    .force("x", forceX((d) => (spots[d.category] || spots.autre).x).strength(ANCHOR_PULL))
    .force("y", forceY((d) => (spots[d.category] || spots.autre).y).strength(ANCHOR_PULL))
    .force("collide", forceCollide(NODE_RADIUS + 1.5).iterations(1))
    .alphaMin(ALPHA_MIN)
    .alphaDecay(1 - ALPHA_MIN ** (1 / TICKS))
    .stop(); // driven by `run` below (or `settle`), not by d3's one-tick-per-frame timer
  const handle = { simulation, nodes, links, stop: () => {} };
  if (running) handle.stop = run(simulation, { onFrame: onTick, onEnd });
  return handle;
}

/** Runs the simulation to rest, as many ticks per animation frame as fit in the frame budget,
 *  calling onFrame after each batch and onEnd once; returns a function that stops it. */
/** @param {any} simulation
 * @param {{onFrame?: () => void, onEnd?: () => void, budgetMs?: number}} [options] @returns {() => void} */
export function run(simulation, { onFrame, onEnd, budgetMs = FRAME_BUDGET_MS } = {}) {
  let frame = 0;
  const step = () => {
    const start = performance.now();
    while (simulation.alpha() >= simulation.alphaMin() && performance.now() - start < budgetMs) simulation.tick();
    onFrame?.();
    if (simulation.alpha() >= simulation.alphaMin()) frame = requestAnimationFrame(step);
    else { frame = 0; onEnd?.(); }
  };
  frame = requestAnimationFrame(step);
  return () => cancelAnimationFrame(frame);
}

/** Runs a stopped simulation to rest without drawing; returns the number of ticks it took. */
export function settle(simulation) {
  let ticks = 0;
  while (simulation.alpha() >= simulation.alphaMin()) {
    simulation.tick();
    ticks += 1;
  }
  return ticks;
}

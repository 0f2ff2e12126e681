// The Mémoire graph: the force layout (graph-layout.js) drawn on a canvas, coloured by category,
// fitted to the view; a click (or a tap) opens the card under it. Keyboard and screen-reader users
// get the same cards in the list view; the canvas says so in its label.
import { html, useEffect, useRef, useState } from "../lib.js";
import { t } from "../i18n.js";
import { CATEGORY_ORDER, NODE_RADIUS, layout } from "./graph-layout.js";

const LABEL_LIMIT = 120; // above this many cards only hovered and cluster-naming cards are labelled
const HIT_PX = 14;
const PAD = 28;

// The theme's colours as the canvas needs them: the variables hold light-dark() pairs, which only
// the element that uses them resolves (through its color-scheme), so a probe element computes each.
function palette(el) {
  const probe = document.createElement("span");
  probe.hidden = true;
  el.appendChild(probe);
  const colour = (name, fallback) => {
    probe.style.color = `var(${name}, ${fallback})`;
    return getComputedStyle(probe).color || fallback;
  };
  const out = { text: colour("--text", "#222"), muted: colour("--muted", "#666"), line: colour("--border", "#ccc"),
    bg: colour("--surface", "#fff") };
  for (const c of CATEGORY_ORDER) out[c] = colour(`--cat-${c}`, "#888");
  probe.remove();
  return out;
}

export function Graph({ data, onOpen }) {
  const canvasRef = useRef(null);
  const wrapRef = useRef(null);
  const state = useRef({ nodes: [], links: [], hover: null, scale: 1, ox: 0, oy: 0 });
  const [settled, setSettled] = useState(false);

  useEffect(() => {
    const canvas = canvasRef.current;
    const wrap = wrapRef.current;
    if (!canvas || !wrap) return undefined;
    const labels = new Set((data.clusters || []).map((c) => c.label));
    const colours = palette(wrap);
    const draw = () => {
      const s = state.current;
      const ratio = window.devicePixelRatio || 1;
      const width = wrap.clientWidth;
      const height = wrap.clientHeight;
      if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
        canvas.width = Math.round(width * ratio);
        canvas.height = Math.round(height * ratio);
      }
      let minX = Infinity; let minY = Infinity; let maxX = -Infinity; let maxY = -Infinity;
      for (const n of s.nodes) {
        minX = Math.min(minX, n.x); maxX = Math.max(maxX, n.x); minY = Math.min(minY, n.y); maxY = Math.max(maxY, n.y);
      }
      if (!s.nodes.length) { minX = minY = -1; maxX = maxY = 1; }
      const scale = Math.min(2, (width - 2 * PAD) / Math.max(1, maxX - minX), (height - 2 * PAD) / Math.max(1, maxY - minY));
      s.scale = scale;
      s.ox = width / 2 - ((minX + maxX) / 2) * scale;
      s.oy = height / 2 - ((minY + maxY) / 2) * scale;
      const ctx = canvas.getContext("2d");
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, width, height);
      ctx.strokeStyle = colours.line;
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (const l of s.links) {
        ctx.moveTo(s.ox + l.source.x * scale, s.oy + l.source.y * scale);
        ctx.lineTo(s.ox + l.target.x * scale, s.oy + l.target.y * scale);
      }
      ctx.stroke();
      const r = Math.max(3, Math.min(NODE_RADIUS * scale, 9));
      for (const n of s.nodes) {
        const x = s.ox + n.x * scale;
        const y = s.oy + n.y * scale;
        ctx.beginPath();
        ctx.arc(x, y, n === s.hover ? r + 2 : r, 0, 2 * Math.PI);
        ctx.fillStyle = colours[n.category] || colours.autre;
        ctx.globalAlpha = n.status === "proposed" ? 0.55 : 1;
        ctx.fill();
        ctx.globalAlpha = 1;
        if (n.status === "proposed") {
          ctx.setLineDash([2, 2]);
          ctx.strokeStyle = colours.text;
          ctx.stroke();
          ctx.setLineDash([]);
        }
      }
      ctx.font = "12px system-ui, sans-serif";
      ctx.fillStyle = colours.text;
      ctx.textBaseline = "middle";
      for (const n of s.nodes) {
        if (s.nodes.length > LABEL_LIMIT && n !== s.hover && !labels.has(n.id)) continue;
        ctx.fillText(n.entity.length > 28 ? `${n.entity.slice(0, 27)}…` : n.entity, s.ox + n.x * scale + r + 4,
          s.oy + n.y * scale);
      }
    };
    let frame = 0;
    const schedule = () => { if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(); }); };
    const { stop, nodes, links } = layout(data, { onTick: draw, onEnd: () => { setSettled(true); draw(); } });
    state.current.nodes = nodes;
    state.current.links = links;
    const resize = new ResizeObserver(schedule);
    resize.observe(wrap);
    return () => { stop(); resize.disconnect(); cancelAnimationFrame(frame); };
  }, [data]);

  const nodeAt = (e) => {
    const s = state.current;
    const rect = canvasRef.current.getBoundingClientRect();
    const x = (e.clientX - rect.left - s.ox) / s.scale;
    const y = (e.clientY - rect.top - s.oy) / s.scale;
    let best = null;
    let bestD = (HIT_PX / s.scale) ** 2;
    for (const n of s.nodes) {
      const d = (n.x - x) ** 2 + (n.y - y) ** 2;
      if (d < bestD) { best = n; bestD = d; }
    }
    return best;
  };
  const onMove = (e) => {
    const n = nodeAt(e);
    if (n !== state.current.hover) {
      state.current.hover = n;
      canvasRef.current.style.cursor = n ? "pointer" : "default";
      canvasRef.current.title = n ? n.entity : "";
    }
  };
  const onClick = (e) => { const n = nodeAt(e); if (n) onOpen(n.id); };

  return html`<div class="mem-graph" ref=${wrapRef} data-settled=${settled ? "1" : "0"} data-testid="graph">
    <canvas ref=${canvasRef} role="img" aria-label=${t("memory.graphSummary", { n: data.nodes.length, links: data.links.length })}
      onPointerMove=${onMove} onClick=${onClick}></canvas>
    <ul class="mem-legend" aria-label=${t("memory.legend")}>
      ${CATEGORY_ORDER.map((c) => html`<li key=${c}><span class=${`mem-dot cat-${c}`} aria-hidden="true"></span>${t(`memory.cat.${c}`)}</li>`)}
    </ul>
  </div>`;
}

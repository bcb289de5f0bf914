// Floor's four shapes, drawn as SVG so they are told apart by form, not by colour.

import { s } from "../../dom.js";

const PATHS = {
  circle: () => s("circle", { cx: 12, cy: 12, r: 9 }),
  triangle: () => s("polygon", { points: "12,2.5 22,20.5 2,20.5" }),
  square: () => s("rect", { x: 3.5, y: 3.5, width: 17, height: 17, rx: 1.5 }),
  star: () =>
    s("polygon", {
      points: "12,1.8 14.9,8.6 22.2,9.2 16.6,14 18.3,21.2 12,17.3 5.7,21.2 7.4,14 1.8,9.2 9.1,8.6",
    }),
};

export const SHAPE_NAMES = ["circle", "triangle", "square", "star"];

/** An inline SVG of `shape`; decorative unless `label` is given. */
export function shapeIcon(shape, { label = null, size = "1em" } = {}) {
  const draw = PATHS[shape];
  return s(
    "svg",
    {
      class: `shape shape-${shape}`,
      viewBox: "0 0 24 24",
      width: size,
      height: size,
      role: label ? "img" : null,
      "aria-label": label,
      "aria-hidden": label ? null : "true",
      focusable: "false",
    },
    draw ? draw() : null,
  );
}

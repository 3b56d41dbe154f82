import { useRef, useState } from "react";
import type { Rect } from "../backend";
import { dragRect } from "../logic/recording";
import { toImagePixels } from "../logic/runState";

export interface Box {
  rect: Rect;
  label: string;
  kind: "located" | "candidate" | "picked";
}

/**
 * A window picture with boxes drawn on it; clicks come back in the picture's own pixels, and a
 * box dragged on it (when `onBox` is given) comes back as a rect in those pixels instead.
 */
export function Screenshot({
  src,
  boxes = [],
  onPick,
  onBox,
  alt,
}: {
  src: string;
  boxes?: Box[];
  onPick?: (p: { x: number; y: number }) => void;
  onBox?: (r: Rect) => void;
  alt: string;
}) {
  const img = useRef<HTMLImageElement>(null);
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  const down = useRef<{ x: number; y: number } | null>(null);
  /** A drag just ended: the click that follows it is no pick. */
  const dragged = useRef(false);
  const at = (e: { clientX: number; clientY: number }) => {
    const r = img.current!.getBoundingClientRect();
    return toImagePixels(
      { x: e.clientX - r.left, y: e.clientY - r.top },
      { w: r.width, h: r.height },
      natural ?? { w: r.width, h: r.height },
    );
  };
  return (
    <div className="shot">
      <img
        ref={img}
        src={src}
        alt={alt}
        data-testid="screenshot"
        onLoad={(e) => setNatural({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
        draggable={false}
        onMouseDown={(e) => {
          if (onBox && img.current) down.current = at(e);
        }}
        onMouseUp={(e) => {
          const from = down.current;
          down.current = null;
          if (!onBox || !from || !img.current) return;
          const rect = dragRect(from, at(e));
          if (rect) {
            dragged.current = true;
            onBox(rect);
          }
        }}
        onClick={(e) => {
          if (dragged.current) {
            dragged.current = false;
            return;
          }
          if (!onPick || !img.current) return;
          onPick(at(e));
        }}
        style={{ cursor: onPick ? "crosshair" : "default" }}
      />
      {natural && (
        <svg className="shot-overlay" viewBox={`0 0 ${natural.w} ${natural.h}`} preserveAspectRatio="none">
          {boxes.map((b, i) => (
            <g key={i} className={`box box-${b.kind}`}>
              <rect x={b.rect.x} y={b.rect.y} width={b.rect.w} height={b.rect.h} />
              <text x={b.rect.x} y={Math.max(12, b.rect.y - 4)}>
                {b.label}
              </text>
            </g>
          ))}
        </svg>
      )}
    </div>
  );
}

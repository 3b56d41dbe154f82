import { useRef, useState } from "react";
import type { Rect } from "../backend";
import { toImagePixels } from "../logic/runState";

export interface Box {
  rect: Rect;
  label: string;
  kind: "located" | "candidate" | "picked";
}

/** A window picture with boxes drawn on it; clicks come back in the picture's own pixels. */
export function Screenshot({
  src,
  boxes = [],
  onPick,
  alt,
}: {
  src: string;
  boxes?: Box[];
  onPick?: (p: { x: number; y: number }) => void;
  alt: string;
}) {
  const img = useRef<HTMLImageElement>(null);
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  return (
    <div className="shot">
      <img
        ref={img}
        src={src}
        alt={alt}
        data-testid="screenshot"
        onLoad={(e) => setNatural({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
        onClick={(e) => {
          if (!onPick || !img.current) return;
          const r = img.current.getBoundingClientRect();
          onPick(
            toImagePixels(
              { x: e.clientX - r.left, y: e.clientY - r.top },
              { w: r.width, h: r.height },
              natural ?? { w: r.width, h: r.height },
            ),
          );
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

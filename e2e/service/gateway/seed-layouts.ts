// How the seeded assets lie on a structure's plan (seed-records.ts): façade bays, partitions, ducts,
// slab bays and fire dampers, in metres from the structure's north-west corner (y grows southwards).

/** A seeded PRNG's next number in [0, 1). */
export type Rng = () => number;
const round = (n: number, step = 0.05) => Math.round(n / step) * step;

type Point = [number, number];
/** A polyline of the plan and where along the work front it lies (0 where work starts, 1 where it ends). */
export interface Run {
  points: Point[];
  front: number;
}

/** The plan of one structure, in metres from its north-west corner (y grows southwards). */
export interface Plan {
  width: number;
  depth: number;
}

/** Curtain-wall runs around the perimeter: regular bays, the corner bays wrapping round the corner. */
export function facadeRuns({ width, depth }: Plan): Run[] {
  const corners: Point[] = [
    [0, 0],
    [width, 0],
    [width, depth],
    [0, depth],
  ];
  const perimeter = 2 * (width + depth);
  const runs: Run[] = [];
  let walked = 0;
  corners.forEach((from, side) => {
    const to = corners[(side + 1) % 4]!;
    const length = Math.hypot(to[0] - from[0], to[1] - from[1]);
    const bays = Math.max(2, Math.round(length / 3.6));
    for (let b = 0; b < bays; b++) {
      const at = (f: number): Point => [round(from[0] + (to[0] - from[0]) * f), round(from[1] + (to[1] - from[1]) * f)];
      runs.push({
        points: [at(b / bays), at((b + 1) / bays)],
        front: (walked + (length * (b + 0.5)) / bays) / perimeter,
      });
    }
    walked += length;
  });
  return runs;
}

/** The rooms either side of a central corridor, and a stair and lift core, as partition walls. */
export function partitionRuns({ width, depth }: Plan, rng: Rng): Run[] {
  const runs: Run[] = [];
  const north = round(depth / 2 - 1.2);
  const south = round(depth / 2 + 1.2);
  const coreX = round(width / 2 - 4);
  const core: Point[] = [
    [coreX, north - 6],
    [coreX + 8, north - 6],
    [coreX + 8, north],
    [coreX, north],
    [coreX, north - 6],
  ];
  runs.push({ points: core, front: 0.5 });
  for (const [wall, far] of [
    [north, 0.4],
    [south, depth - 0.4],
  ] as const) {
    let x = 0.4;
    while (x < width - 3) {
      const inCore = x > coreX - 4 && x < coreX + 8;
      const next = inCore ? coreX + 8 : Math.min(width - 0.4, round(x + 2.8 + rng() * 2.0));
      const front = x / width;
      if (!inCore) {
        runs.push({
          points: [
            [x, wall],
            [next, wall],
          ],
          front,
        });
        if (next < width - 0.4)
          runs.push({
            points: [
              [next, wall],
              [next, far],
            ],
            front,
          });
        // One room in three has a store or washroom cut off by an L-shaped partition.
        if (rng() < 0.35) {
          const ly = round(far + (wall - far) * 0.45);
          const lx = round(x + (next - x) * 0.5);
          runs.push({
            points: [
              [x, ly],
              [lx, ly],
              [lx, far],
            ],
            front,
          });
        }
      }
      x = next;
    }
  }
  return runs;
}

/** A supply trunk along the corridor in duct lengths, a branch into every bay, and two risers. */
export function ductRuns({ width, depth }: Plan, rng: Rng): Run[] {
  const runs: Run[] = [];
  const y = round(depth / 2);
  const pieces = Math.round(width / 5);
  for (let i = 0; i < pieces; i++) {
    const x0 = round((width * i) / pieces);
    const x1 = round((width * (i + 1)) / pieces);
    runs.push({
      points: [
        [x0, y],
        [x1, y],
      ],
      front: (i + 0.5) / pieces,
    });
    for (const dir of [-1, 1]) {
      const bx = round(x0 + (x1 - x0) * (0.3 + rng() * 0.4));
      const reach = round((depth / 2 - 3) * (0.6 + rng() * 0.3));
      const turn = round(bx + (rng() < 0.5 ? -1.5 : 1.5));
      runs.push({
        points: [
          [bx, y],
          [bx, y + dir * reach],
          [turn, y + dir * (reach + 1.5)],
        ],
        front: (i + 0.5) / pieces,
      });
    }
  }
  runs.push(
    {
      points: [
        [2, 2],
        [2, y],
        [6, y],
      ],
      front: 0,
    },
    {
      points: [
        [width - 2, depth - 2],
        [width - 2, y],
        [width - 6, y],
      ],
      front: 1,
    },
  );
  return runs;
}

/** Slab pours as polygons: two rows of bays the width of the structure, poured from west to east. */
export function slabBays({ width, depth }: Plan): Run[] {
  const cols = Math.max(2, Math.round(width / 12));
  const runs: Run[] = [];
  for (const [y0, y1] of [
    [0, round(depth / 2)],
    [round(depth / 2), depth],
  ] as const) {
    for (let i = 0; i < cols; i++) {
      const x0 = round((width * i) / cols);
      const x1 = round((width * (i + 1)) / cols);
      runs.push({
        points: [
          [x0, y0],
          [x1, y0],
          [x1, y1],
          [x0, y1],
        ],
        front: (i + 0.5) / cols,
      });
    }
  }
  return runs;
}

/** Fire dampers as points, where the corridor's duct passes a partition line: one every 6 m or so. */
export function damperPoints({ width, depth }: Plan, rng: Rng): Run[] {
  const runs: Run[] = [];
  for (let x = 4; x < width - 2; x += 5 + rng() * 2)
    runs.push({ points: [[round(x), round(depth / 2 - 1.2)]], front: x / width });
  return runs;
}

/**
 * Pictures for `portway demo`, drawn by the service itself so the demo works offline: a garment's
 * silhouette filled with a colour, seen from the front or the back, as SVG. They are served at
 * `/assets/demo/<garment>-<rrggbb>-<view>.svg` (portal.plugin.ts) and the demo sends those
 * addresses, under PUBLIC_URL, to the pictures endpoint as an ERP would send its CDN's.
 */

/** Silhouettes in a 200 × 200 box: the outline, then what only the front shows (pockets, a zip). */
const GARMENTS = {
  tee: {
    outline: 'M70 30 L55 35 L22 62 L40 88 L55 77 L55 178 L145 178 L145 77 L160 88 L178 62 L145 35 L130 30 Q100 52 70 30 Z',
    front: 'M86 33 Q100 44 114 33 L116 36 Q100 50 84 36 Z',
  },
  tank: {
    outline: 'M74 26 L62 28 Q64 68 52 92 L52 178 L148 178 L148 92 Q136 68 138 28 L126 26 Q100 66 74 26 Z',
    front: 'M60 150 L140 150 L140 154 L60 154 Z',
  },
  hoodie: {
    outline: 'M68 42 Q100 4 132 42 L162 52 L182 150 L162 156 L146 96 L146 178 L54 178 L54 96 L38 156 L18 150 L38 52 Z',
    front: 'M76 128 L124 128 L132 160 L68 160 Z M92 46 L92 78 L95 78 L95 48 Z M105 48 L105 78 L108 78 L108 46 Z',
  },
  jacket: {
    outline: 'M72 30 L100 44 L128 30 L162 44 L184 150 L164 156 L146 92 L146 180 L54 180 L54 92 L36 156 L16 150 L38 44 Z',
    front: 'M99 44 L101 44 L101 180 L99 180 Z M62 120 L88 120 L88 124 L62 124 Z M112 120 L138 120 L138 124 L112 124 Z',
  },
  pants: {
    outline: 'M60 22 L140 22 L152 182 L110 182 L100 82 L90 182 L48 182 Z',
    front: 'M60 22 L140 22 L140 32 L60 32 Z M99 32 L101 32 L101 62 L99 62 Z',
  },
  shorts: {
    outline: 'M54 46 L146 46 L158 138 L108 144 L100 96 L92 144 L42 138 Z',
    front: 'M54 46 L146 46 L146 56 L54 56 Z M99 56 L101 56 L101 80 L99 80 Z',
  },
  hivis: {
    outline: 'M70 30 L55 35 L22 62 L40 88 L55 77 L55 178 L145 178 L145 77 L160 88 L178 62 L145 35 L130 30 L100 50 Z',
    front: 'M100 50 L100 80 L103 80 L103 48 Z',
  },
  cap: {
    outline: 'M44 128 Q44 58 100 54 Q156 58 156 128 Z M30 128 L172 128 Q186 150 150 152 L40 146 Q24 140 30 128 Z',
    front: 'M96 54 L104 54 L104 62 L96 62 Z M80 96 L120 96 L120 112 L80 112 Z',
  },
  socks: {
    outline: 'M82 18 L122 18 L122 128 Q122 148 142 158 L160 164 Q178 174 160 186 L102 186 Q82 186 82 160 Z',
    front: 'M82 18 L122 18 L122 34 L82 34 Z',
  },
} as const;

export type DemoGarment = keyof typeof GARMENTS;
export const DEMO_GARMENTS = Object.keys(GARMENTS) as DemoGarment[];
export type DemoView = 'front' | 'back';

/** Reflective tape across a hi-vis garment, front and back. */
const TAPE = 'M55 120 L145 120 L145 130 L55 130 Z M55 145 L145 145 L145 155 L55 155 Z';

/** `/assets/demo/<garment>-<rrggbb>-<view>.svg`: what the route below answers. */
export function demoPicturePath(garment: DemoGarment, colour: string, view: DemoView): string {
  return `/assets/demo/${garment}-${colour.replace(/^#/, '').toLowerCase()}-${view}.svg`;
}

const PICTURE = /^(?<garment>[a-z]+)-(?<colour>[0-9a-f]{6})-(?<view>front|back)\.svg$/;

/** The SVG of a file name the route is asked for, or undefined when it names no picture. */
export function demoPictureSvg(file: string): string | undefined {
  const m = PICTURE.exec(file)?.groups;
  if (m === undefined || !Object.hasOwn(GARMENTS, m.garment as string)) return undefined;
  const garment = GARMENTS[m.garment as DemoGarment];
  const fill = `#${m.colour as string}`;
  const details = [
    m.view === 'front' ? `<path d="${garment.front}" fill="#000" fill-opacity=".18"/>` : '',
    m.garment === 'hivis' ? `<path d="${TAPE}" fill="#d9dcdf"/>` : '',
  ].join('');
  return '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 200" width="640" height="640">'
    + '<rect width="200" height="200" fill="#f3f2f1"/>'
    + `<path d="${garment.outline}" fill="${fill}" stroke="#0b0c0c" stroke-opacity=".45" stroke-width="1.5" stroke-linejoin="round"/>`
    + `${details}</svg>`;
}

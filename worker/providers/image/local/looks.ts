/**
 * What each generator style looks like in the offline renderer: the colour treatment of the photo,
 * the frame, the label colours and the backdrop used when no background was asked for.
 */
import type { Sharp } from 'sharp'
import { isGeneratorStyle } from '#domain/generation/prompt.ts'
import type { GeneratorStyle } from '#domain/generation/prompt.ts'
import { SANS_FONT, SERIF_FONT, gradientStop as stop, svgDocument } from './svg.ts'

export type FrameShape = 'rounded' | 'arch' | 'square' | 'oval'

export interface Look {
  title: string
  frame: FrameShape
  /** Frame and badge outline colour. */
  accent: string
  /** Label background and its text colour. */
  paper: string
  ink: string
  titleFont: string
  backdrop: [top: string, bottom: string]
  /** Recolours a square photo of the given size; the output keeps the size. */
  treat(photo: Sharp, size: number): Sharp
}

const LOOKS: Record<GeneratorStyle, Look> = {
  general: {
    title: 'Painterly Portrait',
    frame: 'rounded',
    accent: '#b9853f',
    paper: '#fbf3e4',
    ink: '#4a3320',
    titleFont: SERIF_FONT,
    backdrop: ['#f7e6c8', '#d49a5b'],
    // A median filter flattens fine texture into brush-like patches; the matrix warms the light.
    treat: (photo, size) =>
      photo
        .median(7)
        .modulate({ saturation: 1.25, brightness: 1.04 })
        .recomb([
          [1.12, 0.05, 0],
          [0.03, 1.0, 0],
          [0, 0.04, 0.8],
        ])
        .composite([{ input: glow(size, '#ffcf8a'), blend: 'soft-light' }]),
  },
  fashion_female: {
    title: 'Rose & Gold Editorial',
    frame: 'arch',
    accent: '#c9a063',
    paper: '#fff4f4',
    ink: '#6b2f45',
    titleFont: SERIF_FONT,
    backdrop: ['#fbe4ea', '#e3aab6'],
    treat: (photo, size) =>
      photo
        .modulate({ brightness: 1.08, saturation: 0.85 })
        .recomb([
          [1.06, 0.08, 0.02],
          [0.02, 0.92, 0.04],
          [0.05, 0.04, 0.94],
        ])
        .composite([{ input: wash(size, '#f29bb4', '#e9c27a'), blend: 'soft-light' }]),
  },
  fashion_male: {
    title: 'Navy Editorial',
    frame: 'square',
    accent: '#a7b1c2',
    paper: '#1e2638',
    ink: '#e9eef6',
    titleFont: SANS_FONT,
    backdrop: ['#26324f', '#2e3138'],
    treat: (photo, size) =>
      photo
        .modulate({ saturation: 0.5 })
        .linear(1.18, -14)
        .recomb([
          [0.86, 0.05, 0.04],
          [0.02, 0.95, 0.08],
          [0.02, 0.1, 1.12],
        ])
        .composite([{ input: wash(size, '#3a5a8c', '#36454f'), blend: 'soft-light' }]),
  },
  template: {
    title: 'Vintage Keepsake',
    frame: 'oval',
    accent: '#8a6a3b',
    paper: '#f3e7cf',
    ink: '#3e2f1c',
    titleFont: SERIF_FONT,
    backdrop: ['#efe2c6', '#bfa27a'],
    // The classic sepia matrix, lifted blacks for a faded print, and a dark vignette.
    treat: (photo, size) =>
      photo
        .recomb([
          [0.393, 0.769, 0.189],
          [0.349, 0.686, 0.168],
          [0.272, 0.534, 0.131],
        ])
        .linear(0.88, 22)
        .composite([{ input: vignette(size, '#3b2410'), blend: 'multiply' }]),
  },
}

/** Unknown (admin-made) styles render like 'general'. */
export function lookFor(style: string): Look {
  return LOOKS[isGeneratorStyle(style) ? style : 'general']
}

/** A warm light from the upper left, for soft-light blending. */
function glow(size: number, colour: string): Buffer {
  return gradientSquare(
    size,
    `<radialGradient id="f" cx="0.35" cy="0.3" r="0.8">${stop(0, colour)}${stop(1, '#5a3a1a')}</radialGradient>`,
  )
}

function wash(size: number, from: string, to: string): Buffer {
  return gradientSquare(
    size,
    `<linearGradient id="f" x1="0" y1="0" x2="1" y2="1">${stop(0, from)}${stop(1, to)}</linearGradient>`,
  )
}

/** White in the middle (neutral under multiply), darkening towards the corners. */
function vignette(size: number, colour: string): Buffer {
  return gradientSquare(
    size,
    `<radialGradient id="f" cx="0.5" cy="0.5" r="0.72">${stop(0.55, '#ffffff')}${stop(1, colour)}</radialGradient>`,
  )
}

function gradientSquare(size: number, gradient: string): Buffer {
  return svgDocument(size, size, `<defs>${gradient}</defs><rect width="${size}" height="${size}" fill="url(#f)"/>`)
}

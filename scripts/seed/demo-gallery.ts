/**
 * The demo templates a new installation starts with, so the first visitor sees a real gallery. Made
 * offline: a cartoon pet (demo-pet-drawing) goes through the offline portrait renderer as a user's
 * photo would, with the template prompt choosing its backdrop, then is stored like an admin upload.
 */
import sharp from 'sharp'
import type { DB } from '#platform/db.server.ts'
import type { MediaStorage } from '#platform/storage.server.ts'
import { createLocalImageProvider } from '#worker/providers/image/local.ts'
import type { GeneratorStyle } from '#domain/generation/prompt.ts'
import { type Accessory, drawPet, type PetSpec } from './demo-pet-drawing.ts'
import type { GuidedField } from '#domain/generation/guided-fields.ts'
import { createTemplate } from '#domain/gallery/templates.server.ts'

type Coat = Pick<PetSpec, 'species' | 'fur' | 'light' | 'dark' | 'ears' | 'eyePatch' | 'stripes' | 'eyes'>

const COATS = {
  golden: { species: 'dog', fur: '#d9a05b', light: '#f6e3c6', dark: '#8b5a2b', ears: 'floppy' },
  husky: { species: 'dog', fur: '#f4f1ea', light: '#ffffff', dark: '#3a3a3a', ears: 'pointy', eyePatch: true },
  chocolate: { species: 'dog', fur: '#3b2a20', light: '#c49a6c', dark: '#24180f', ears: 'floppy' },
  corgi: { species: 'dog', fur: '#e08a3c', light: '#fff6ea', dark: '#c46a24', ears: 'pointy' },
  schnauzer: { species: 'dog', fur: '#9aa0a6', light: '#e9ecef', dark: '#5f6368', ears: 'floppy' },
  poodle: { species: 'dog', fur: '#f2e2c4', light: '#fffaf0', dark: '#d8b98a', ears: 'floppy' },
  ginger: { species: 'cat', fur: '#f0a04b', light: '#fff4e0', dark: '#b5651d', stripes: true, eyes: '#8cc63f' },
  smoky: { species: 'cat', fur: '#6b6b6b', light: '#e8e8e8', dark: '#3d3d3d', eyes: '#f1c40f' },
  tuxedo: { species: 'cat', fur: '#2b2b2b', light: '#f4f4f4', dark: '#111111', eyes: '#2ec4b6' },
  siamese: { species: 'cat', fur: '#efe3d0', light: '#fffaf2', dark: '#5a4033', eyes: '#4aa3df' },
  calico: { species: 'cat', fur: '#f7f1e8', light: '#ffffff', dark: '#e08a3c', stripes: true, eyes: '#8cc63f' },
  tabby: { species: 'cat', fur: '#a39e93', light: '#f1ede6', dark: '#5e574d', stripes: true, eyes: '#d4af37' },
} satisfies Record<string, Coat>

interface DemoTemplate {
  name: string
  style: string
  /** The offline renderer's look: colour treatment and frame. */
  look: GeneratorStyle
  coat: keyof typeof COATS
  accessories: Accessory[]
  accent: string
  backdrop: [string, string]
  tilt?: number
  /** Names a place the renderer knows (beach, city, snow...) to pick the scene behind the frame. */
  templatePrompt: string
  otherParams: Partial<Record<GuidedField, string>>
}

// One template a line reads best.
// prettier-ignore
const DEMO_TEMPLATES: DemoTemplate[] = [
  { name: 'Runway Retriever', style: 'fashion', look: 'fashion_male', coat: 'golden', accessories: ['bowtie', 'sunglasses'], accent: '#c0392b', backdrop: ['#fde2ec', '#f7b2c4'], tilt: 6, templatePrompt: 'A confident pet strutting down a city runway at night in designer sunglasses and a silk bow tie, editorial fashion photography', otherParams: { clothingTop: 'red silk bow tie', accessories: 'designer sunglasses', background: 'city runway at night' } },
  { name: 'Parisian Beret', style: 'fashion', look: 'fashion_female', coat: 'tuxedo', accessories: ['beret', 'scarf'], accent: '#d62828', backdrop: ['#f3e7cf', '#e0c9a6'], tilt: -5, templatePrompt: 'A chic pet in a red beret and cashmere scarf posing on a Paris street in soft golden light', otherParams: { clothingTop: 'cashmere scarf', accessories: 'red beret', background: 'Paris street' } },
  { name: 'Garden Gala', style: 'fashion', look: 'fashion_female', coat: 'smoky', accessories: ['ruff', 'flowerCrown'], accent: '#e07a93', backdrop: ['#f7c6d3', '#d98aa0'], templatePrompt: 'An elegant pet at a spring garden gala wearing a flower crown and a pearl collar', otherParams: { clothingTop: 'pearl collar', accessories: 'flower crown', background: 'spring garden' } },
  { name: 'Champion Sprinter', style: 'sports', look: 'general', coat: 'corgi', accessories: ['headband', 'medal'], accent: '#2e86de', backdrop: ['#e0f0ff', '#b9dcf7'], tilt: 4, templatePrompt: 'A determined pet athlete with a sweatband and a gold medal on a sunny sports field', otherParams: { accessories: 'sweatband and gold medal', action: 'sprinting', background: 'sports field' } },
  { name: 'Surf Day', style: 'sports', look: 'general', coat: 'husky', accessories: ['sunglasses', 'bandana'], accent: '#2ec4b6', backdrop: ['#d9f1fb', '#6fc0ee'], tilt: -6, templatePrompt: 'A sporty pet riding the waves on a surfboard at the beach', otherParams: { clothingTop: 'teal bandana', accessories: 'sunglasses', action: 'surfing', background: 'beach' } },
  { name: 'Ski Ace', style: 'sports', look: 'fashion_male', coat: 'tabby', accessories: ['headband', 'scarf'], accent: '#e67e22', backdrop: ['#eef4fb', '#c9dcef'], templatePrompt: 'A pet skier in a warm scarf racing down a snowy mountain', otherParams: { clothingTop: 'orange scarf', accessories: 'ski headband', action: 'skiing', background: 'snowy mountain' } },
  { name: 'Distinguished Gentleman', style: 'portrait', look: 'fashion_male', coat: 'schnauzer', accessories: ['roundGlasses', 'bowtie'], accent: '#1f2a44', backdrop: ['#dfe6ee', '#aab7c6'], templatePrompt: 'A classic studio portrait of a distinguished pet with round glasses and a bow tie', otherParams: { clothingTop: 'navy bow tie', accessories: 'round glasses' } },
  { name: 'Sunday Best', style: 'portrait', look: 'general', coat: 'ginger', accessories: ['bowtie'], accent: '#2e9e5b', backdrop: ['#fff3c4', '#f6d58e'], tilt: 7, templatePrompt: 'A warm family-album portrait of a pet in its Sunday best, soft window light', otherParams: { clothingTop: 'green bow tie' } },
  { name: 'Golden Hour', style: 'portrait', look: 'general', coat: 'poodle', accessories: [], accent: '#d4af37', backdrop: ['#ffe9d6', '#f6b989'], tilt: -8, templatePrompt: 'A candid portrait of a happy pet at sunset in the golden hour glow', otherParams: { background: 'sunset' } },
  { name: 'Birthday Bash', style: 'festival', look: 'general', coat: 'husky', accessories: ['partyHat', 'bandana'], accent: '#2e9e5b', backdrop: ['#fff3c4', '#ffd166'], templatePrompt: 'A joyful pet in a party hat celebrating its birthday under fireworks in the night sky', otherParams: { clothingTop: 'green bandana', accessories: 'party hat', background: 'fireworks at night' } },
  { name: 'Merry Christmas', style: 'festival', look: 'general', coat: 'chocolate', accessories: ['santaHat', 'scarf'], accent: '#2e86de', backdrop: ['#e0f0ff', '#ffffff'], tilt: 5, templatePrompt: 'A cosy pet in a Santa hat and knitted scarf on a snowy Christmas eve', otherParams: { clothingTop: 'knitted blue scarf', accessories: 'Santa hat', background: 'snowy Christmas eve' } },
  { name: 'Blossom Festival', style: 'festival', look: 'general', coat: 'calico', accessories: ['flowerCrown'], accent: '#f28db2', backdrop: ['#f9b8cf', '#f28db2'], tilt: -4, templatePrompt: 'A pet celebrating the spring flower festival with a crown of blossoms', otherParams: { accessories: 'crown of blossoms', background: 'flower festival' } },
  { name: 'Royal Highness', style: 'cosplay', look: 'template', coat: 'ginger', accessories: ['crown', 'cape'], accent: '#8e44ad', backdrop: ['#d8e8ff', '#a9c6f5'], tilt: -6, templatePrompt: 'A regal pet monarch with a golden crown and a velvet cape, seated like royalty', otherParams: { clothingTop: 'purple velvet cape', accessories: 'golden crown', action: 'sitting on a throne' } },
  { name: 'Little Wizard', style: 'cosplay', look: 'general', coat: 'siamese', accessories: ['roundGlasses', 'cape'], accent: '#7b4fb3', backdrop: ['#e6e0f5', '#b69fd8'], templatePrompt: 'A young wizard pet with round glasses and a flowing cape under a starry night sky', otherParams: { clothingTop: 'flowing wizard cape', accessories: 'round glasses', background: 'starry night sky' } },
  { name: 'Caped Crusader', style: 'cosplay', look: 'fashion_male', coat: 'corgi', accessories: ['cape', 'bandana'], accent: '#c0392b', backdrop: ['#ffe0d6', '#f5a38a'], tilt: 6, templatePrompt: 'A caped superhero pet ready to save the city skyline', otherParams: { clothingTop: 'red superhero cape', action: 'heroic pose', background: 'city skyline' } },
  { name: 'Tropical Getaway', style: 'travel', look: 'fashion_female', coat: 'tuxedo', accessories: ['sunglasses', 'flowerCrown'], accent: '#f6bd60', backdrop: ['#fff4e0', '#ffd6a5'], tilt: 5, templatePrompt: 'A relaxed pet on a tropical island beach holiday with sunglasses and a flower lei', otherParams: { accessories: 'sunglasses and a flower lei', background: 'tropical beach' } },
  { name: 'Alpine Hiker', style: 'travel', look: 'general', coat: 'golden', accessories: ['scarf', 'beret'], accent: '#2e9e5b', backdrop: ['#e6f4ea', '#b7dfc3'], tilt: -5, templatePrompt: 'A happy pet hiker in a scarf exploring the Alps in winter', otherParams: { clothingTop: 'green scarf', accessories: 'beret', action: 'hiking', background: 'the Alps in winter' } },
  { name: 'Tokyo Nights', style: 'travel', look: 'fashion_male', coat: 'smoky', accessories: ['sunglasses', 'scarf'], accent: '#e88aa8', backdrop: ['#e0e3ff', '#b1b8f0'], templatePrompt: 'A cool pet tourist strolling through the neon city streets of Tokyo', otherParams: { clothingTop: 'pink scarf', accessories: 'sunglasses', action: 'strolling', background: 'Tokyo streets' } },
  { name: 'Renaissance Duchess', style: 'oil_painting', look: 'general', coat: 'siamese', accessories: ['ruff', 'crown'], accent: '#8b5a2b', backdrop: ['#5c4033', '#2e211a'], templatePrompt: 'An oil painting in the Renaissance manner: a noble pet with a lace ruff collar and a jewelled crown', otherParams: { clothingTop: 'lace ruff collar', accessories: 'jewelled crown' } },
  { name: 'Country Squire', style: 'oil_painting', look: 'general', coat: 'chocolate', accessories: ['medal', 'ruff'], accent: '#2e9e5b', backdrop: ['#7a8b5a', '#3f4a2c'], tilt: 4, templatePrompt: 'A 19th-century oil portrait of a proud pet squire in a green meadow', otherParams: { clothingTop: 'lace collar', accessories: 'gold medal', background: 'green meadow' } },
  { name: 'Simply Corgi', style: 'minimalism', look: 'fashion_male', coat: 'corgi', accessories: [], accent: '#1f2a44', backdrop: ['#f4f4f4', '#dcdcdc'], templatePrompt: 'A minimalist portrait of a pet on a flat pastel background, clean lines', otherParams: {} },
  { name: 'Quiet Cat', style: 'minimalism', look: 'fashion_female', coat: 'tabby', accessories: [], accent: '#1f2a44', backdrop: ['#f7efe9', '#e8d9cf'], tilt: -7, templatePrompt: 'A calm minimalist study of a pet with lots of negative space', otherParams: {} },
  { name: 'Forest Friend', style: 'random', look: 'general', coat: 'schnauzer', accessories: ['bandana'], accent: '#e67e22', backdrop: ['#e6f4ea', '#cde8d2'], tilt: 8, templatePrompt: 'A curious pet exploring a mossy forest trail', otherParams: { clothingTop: 'orange bandana', action: 'exploring', background: 'forest trail' } },
  { name: 'Stargazer', style: 'random', look: 'template', coat: 'tuxedo', accessories: ['scarf'], accent: '#f1c40f', backdrop: ['#dfe6ee', '#9fb0c6'], tilt: -6, templatePrompt: 'A dreamy pet gazing at the moon and the stars', otherParams: { clothingTop: 'yellow scarf', action: 'stargazing', background: 'moon and stars' } },
]

/** Square, 4:5 and 3:4 crops of the renderer's 1024 px square keep the masonry grid varied. */
const CROP_WIDTHS = [1024, 820, 768]
const RENDER_SIZE = 1024
// sharp works on libuv's threads; a few renders at once finish sooner without hogging memory.
const PARALLEL_RENDERS = 4

export const DEMO_TEMPLATE_COUNT = DEMO_TEMPLATES.length

/** Fills an empty gallery with the demo templates; a gallery with any image is left alone. Answers how many were added. */
export async function seedDemoGallery(db: DB, storage: MediaStorage): Promise<number> {
  const existing = await db.selectFrom('templates').select('id').limit(1).executeTakeFirst()
  if (existing) return 0
  // Oldest first in time, so the gallery (newest first) shows them in the order listed.
  const ordered = DEMO_TEMPLATES.map((template, index) => ({ template, index })).reverse()
  for (let start = 0; start < ordered.length; start += PARALLEL_RENDERS) {
    const batch = ordered.slice(start, start + PARALLEL_RENDERS)
    const images = await Promise.all(batch.map(({ template, index }) => renderDemo(template, index)))
    // Inserted one by one in order: created_at decides the gallery's order.
    for (const [position, { template }] of batch.entries()) {
      await createTemplate(db, storage, {
        image: images[position],
        style: template.style,
        name: template.name,
        prompt: '',
        templatePrompt: template.templatePrompt,
        otherParams: { personification: 'no', ...template.otherParams },
        createdBy: null,
      })
    }
  }
  return DEMO_TEMPLATES.length
}

async function renderDemo(template: DemoTemplate, index: number): Promise<Buffer> {
  const pet = drawPet({
    ...COATS[template.coat],
    accessories: template.accessories,
    accent: template.accent,
    backdrop: template.backdrop,
    tilt: template.tilt,
  })
  const photo = await sharp(pet).png().toBuffer()
  const {
    images: [portrait],
  } = await createLocalImageProvider().generate(
    {
      images: [{ bytes: photo, mimeType: 'image/png' }],
      prompt: template.templatePrompt,
      style: template.look,
      guided: null,
    },
    { signal: new AbortController().signal, onProgress: () => {} },
  )
  const width = CROP_WIDTHS[index % CROP_WIDTHS.length]
  return sharp(portrait.bytes)
    .extract({ left: (RENDER_SIZE - width) / 2, top: 0, width, height: RENDER_SIZE })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 88 })
    .toBuffer()
}

import { NoData } from '#app/analytics/no-data.tsx'
import type { TemplateFixReasons } from '#domain/analytics/likeness-fixes.server.ts'

/** Likeness fixes per template, most-fixed first, each with what users said was off. */
export function FixReasons({ templates }: { templates: TemplateFixReasons[] }) {
  if (templates.length === 0) return <NoData />
  return (
    <table className="fix-reasons">
      <thead>
        <tr>
          <th scope="col">Template</th>
          <th scope="col">Fixes</th>
          <th scope="col">What was off</th>
        </tr>
      </thead>
      <tbody>
        {templates.map((template) => (
          <tr key={template.templateId ?? 'none'}>
            <th scope="row">{template.templateName}</th>
            <td>{template.fixes}</td>
            <td>{template.reasons.map((reason) => `${reason.label} ${reason.count}`).join(', ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

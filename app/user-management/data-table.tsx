import type { ReactNode, TdHTMLAttributes } from 'react'

export interface Column<Row> {
  header: string
  cell: (row: Row, index: number) => ReactNode
  /** The cell's own attributes, such as a title or a class. */
  cellProps?: (row: Row) => TdHTMLAttributes<HTMLTableCellElement>
}

interface DataTableProps<Row> {
  rows: Row[]
  columns: Column<Row>[]
  /** Shown instead of the table when there are no rows. */
  empty: string
  className?: string
  /** Data attributes of a row (tests find rows by them). */
  rowData?: (row: Row) => Record<`data-${string}`, string>
}

/** A scrolling table of rows, one column a header and a cell. */
export function DataTable<Row extends { id: string }>({
  rows,
  columns,
  empty,
  className,
  rowData,
}: DataTableProps<Row>) {
  if (rows.length === 0) return <p className="muted">{empty}</p>
  return (
    <div className="table-scroll">
      <table className={className ? `data ${className}` : 'data'}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column.header}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={row.id} {...rowData?.(row)}>
              {columns.map((column) => (
                <td key={column.header} {...column.cellProps?.(row)}>
                  {column.cell(row, index)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** Where the browser reports client-side navigations as page views (document requests are counted on the server). */
export const PAGE_VIEW_BEACON_PATH = '/api/analytics/pageview'

// Package decade simulates years of hourly runs over the manifests, cheaply
// and with real git, to measure what the record costs the repository that
// carries it: main's packed size as a contributor clones it, the stores'
// sizes, what each run uploads, and every GitHub limit met on the way.
//
// The model (Plan) draws, for each source of the manifests, the times its
// publisher changes the document (a Poisson process at its kind's cadence,
// Profiles, each figure with where it comes from) and the run that notices
// each change (the first hourly run at which the source is due again, its
// recheck). A change is a new version: new bytes, and a derived text that
// differs from the last one in a few lines. The bot's rolling pull request
// is squash-merged into main once a day on days with changes; each merge is
// one commit on main, written with git fast-import.
//
// What a merge commit carries is the Mode's to say, and only that differs
// between the two layouts measured: BytesInMain (the index, the derived
// texts, the reports and the blobs under snapshots/sha256/) and RecordOnly
// (the same without the blobs, whose bytes go to the stores: one release
// per month of 64-hex-named assets, and a bucket). The pipeline itself is
// not run: the simulation decides which paths a commit carries, so that it
// measures a layout, not the code that writes it.
//
// Bytes of compressed formats (PDF, ZIP, XLSX) are random, as compressed
// streams are to git; pages, XML and derived texts are lines of words that
// deflate as prose does (about 2.7:1). Nothing is sent anywhere: the
// repository is a bare repository on disk, repacked whole with deltas
// computed afresh (git repack -a -d -f), which the tests and the benchmark
// serve through git http-backend on loopback to clone it.
//
// Whether two versions of a text are stored as a delta is git's packer's
// call, and it pairs candidates by the end of their path: texts named by
// their bytes' hash (snapshots/text/<version>/<2 hex>/<hash>.txt,
// RecordOnlyTextByHash) are packed whole at scale, each version costing
// its deflated size, while a text kept at one path per source (main's
// layout, botrepo.TextPath) costs the few lines that changed. The
// benchmark measures both.
package decade

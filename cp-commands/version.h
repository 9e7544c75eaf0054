/* zvswitch's version, as every program prints it with --version and as the monitor file's
 * readers and the HTML report name their producer: the VERSION file, with "+gitN.gHASH" in
 * a git tree (scripts/version.sh), a form a Debian package version can carry. */
#ifndef ZVS_VERSION_H
#define ZVS_VERSION_H

/* The version string, e.g. "0.3.0+git12.g1a2b3c4"; never NULL. */
const char *zvs_version(void);

#endif

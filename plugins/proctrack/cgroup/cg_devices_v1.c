/* cg_devices_v1.c - ConstrainDevices on cgroup v1: the devices controller.
 *
 * The step gets a group in the devices hierarchy at the same relative
 * path as its freezer group. A new v1 devices group starts with its
 * parent's list (on a host whose root allows everything: "a *:* rwm"),
 * and each "c MAJ:MIN rwm" written to its devices.deny takes read, write
 * and mknod of that device away from every process in it and their
 * children (open(2) fails with EPERM). Nothing else changes.
 *
 * Once c->dev_limited is set, cg_v1.c puts every process it adds, adds
 * itself or adopts into this group too, and destroy removes it (and the
 * job's level when it is empty) like the memory group.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"
#include "cg_devices.h"

/* Write "<kind> MAJ:MIN rwm" to <devices>/<rel>/devices.deny. */
static int cg_devices_v1_deny (struct cg_ctx *c, const struct proctrack_dev *d)
{
    char path[PATH_MAX * 2], line[64];

    if (d->kind != 'c' && d->kind != 'b') {
        errno = EINVAL;
        return -1;
    }
    snprintf (line, sizeof (line), "%c %u:%u rwm", d->kind, (unsigned)d->major,
              (unsigned)d->minor);
    if (cg_path_join (path, sizeof (path), c->mounts.devices, c->rel,
                      "devices.deny")
        < 0)
        return -1;
    return cg_write (path, line);
}

int cg_devices_v1 (struct cg_ctx *c, const struct proctrack_dev *deny, size_t n,
                   arbor_error_t *err)
{
    const char *mount = c->mounts.devices;
    int e;

    if (!mount[0]) {
        errno = ENOTSUP;
        return errprintf (err, "proctrack/cgroup: ConstrainDevices needs the "
                               "cgroup v1 devices controller, not mounted "
                               "here");
    }
    if (cg_mkdirs (mount, c->rel) < 0)
        return errprintf (err, "proctrack/cgroup: mkdir %s/%s: %s", mount,
                          c->rel, strerror (errno));
    for (size_t i = 0; i < n; i++) {
        if (cg_devices_v1_deny (c, &deny[i]) < 0) {
            e = errno;
            (void)cg_rmdirs (mount, c->rel, c->levels);
            errno = e;
            return errprintf (err,
                              "proctrack/cgroup: %s/%s: devices.deny "
                              "%c %u:%u: %s",
                              mount, c->rel, deny[i].kind,
                              (unsigned)deny[i].major, (unsigned)deny[i].minor,
                              strerror (e));
        }
    }
    /* libcgroup's attach handle, if create made one, lacks the devices
     * controller: drop it, cg_v1_add makes it again with it. */
    cg_v1_fini (c);
    c->dev_limited = true;
    return 0;
}

/* local_conf.h - the cluster's directory and its arbor.conf
 * (local_conf.c). Private to cli/local/.
 */
#ifndef ARBOR_CLI_LOCAL_CONF_H
#define ARBOR_CLI_LOCAL_CONF_H

struct local;

int local_dir_setup (struct local *l);
int local_conf_write (struct local *l);
int local_rmtree (const char *dir);

#endif
